import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

export class SelectScaMethodInput {
  @ApiProperty({ example: 'sbx-sms-otp', description: 'One of the `scaMethods` ids', maxLength: 255 })
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,255}$/, { message: 'scaMethodId must be an SCA method id' })
  scaMethodId: string;
}
